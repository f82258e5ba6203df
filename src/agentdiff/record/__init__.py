"""Record your own runs: canonical `AgentTrace` JSON from any Python agent.

    from agentdiff.record import record_run, traced

    @traced
    def get_weather(city: str) -> dict: ...

    with record_run("weather-agent", task_input={"city": "Paris"}, path="runs/1.json") as run:
        with run.step("llm_call", "plan", {"messages": messages}) as step:
            step.record_response(client.chat.completions.create(...))
        get_weather("Paris")
        run.final_output = "18 °C"

See `agentdiff.record.run` for the rules (nesting, errors, ids) and `agentdiff.record.usage`
for the OpenAI/Anthropic response helpers.
"""

from agentdiff.record.context import current_run, current_step
from agentdiff.record.decorate import traced
from agentdiff.record.run import Run, StepScope, record_run
from agentdiff.record.step import Step
from agentdiff.record.usage import model_of, usage_of

__all__ = [
    "Run",
    "Step",
    "StepScope",
    "current_run",
    "current_step",
    "model_of",
    "record_run",
    "traced",
    "usage_of",
]

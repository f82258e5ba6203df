import inspect

import agentdiff


def test_all_is_sorted_and_complete():
    assert agentdiff.__all__ == sorted(agentdiff.__all__)
    public = {
        n
        for n in dir(agentdiff)
        if not n.startswith("_") and not inspect.ismodule(getattr(agentdiff, n))
    }
    assert public <= set(agentdiff.__all__), public - set(agentdiff.__all__)
    for name in agentdiff.__all__:
        assert hasattr(agentdiff, name), name

"""Many trace formats in, one `AgentTrace` out: the adapter base class, registry and built-ins."""

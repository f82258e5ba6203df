"""`python -m agentdiff`."""

from agentdiff.cli.app import main

main()

"""Research tools: the bot ladder, the checks and fitting tools behind docs/bots.md, and the
engine's speed benchmarks.

They play the engine and the bots (games.engine, games.bots) offline and print reports; the
site never imports them (import-linter keeps games, lobby and accounts from doing so). Each
is run as `python -m bench.research.<tool>`; its docstring gives the usage.
"""

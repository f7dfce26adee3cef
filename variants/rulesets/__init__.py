"""The five built-in rulesets, one module each."""

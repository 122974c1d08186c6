"""The AI kinds, one module each; :mod:`ai.registry` finds them here. Importing this package
imports none of them."""

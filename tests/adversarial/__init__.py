"""Deterministic generators for the adversarial test catalogue (see gen.py)."""

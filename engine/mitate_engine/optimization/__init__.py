"""Optimisation over trained models: search space with exact constraints, objectives, algorithms, report."""

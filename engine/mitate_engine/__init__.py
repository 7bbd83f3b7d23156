"""Mitate engine: numeric and ML compute. No HTTP, no users, no database; jobs arrive as JSON specs."""

"""Hosted model APIs: persistent serving processes that keep trained models loaded (no job per request)."""

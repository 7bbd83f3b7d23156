"""Training and prediction on tables: algorithms, auto-tune, metrics, reports and model packaging."""

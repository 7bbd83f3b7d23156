"""Statistical tests of the statistical-analysis area: reading samples (data), the tests (methods), and the
descriptives, assumption checks and chart data they share (describe)."""

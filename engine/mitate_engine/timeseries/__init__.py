"""Time-series anomaly detection: windowed features, detectors (PCA-MSPC, Isolation Forest, LOF, one-class SVM,
robust z / Hampel, supervised classifiers), threshold metrics and the trained-model object."""

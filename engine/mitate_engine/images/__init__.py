"""Image OK/NG inspection and image classification: ZIP ingest, EfficientNet-Lite backbone, PatchCore, classifiers."""

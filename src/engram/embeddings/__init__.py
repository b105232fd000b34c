"""Text embedders behind one small protocol; the default runs MiniLM on ONNX Runtime."""

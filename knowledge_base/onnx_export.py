"""The embedding model exported for ONNX Runtime, at install time (``assess model export``, run by ``make install``).

The transformer of a sentence-transformers folder is exported with torch's TorchScript-based exporter to
``<model>/onnx/model.onnx`` (inputs ``input_ids``, ``attention_mask``, ``token_type_ids``; output the last hidden
state); pooling and normalisation stay in ``embeddings.OnnxEmbedder``. torch, transformers and onnx are needed here
only: answering questions then imports none of them. The file is written whole (a temporary name, then renamed), and
an export that does not give the torch model's vectors on probe sentences is refused.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

PROBES = ["Which SNMP community strings are allowed on the core routers?", "ntp", "A longer sentence " * 40]
TOLERANCE = 1e-4  # largest difference allowed between a vector of the export and of torch (seen: 1.5e-7)


def export(model_path: Path, target: Path, force: bool = False) -> str:
    """Write the export unless it is there (``force``: again); what was done, for the installer's output."""
    if target.exists() and not force:
        return f"{target} is there"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModel

    class LastHiddenState(torch.nn.Module):
        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            hidden: torch.Tensor = out.last_hidden_state
            return hidden

    model = LastHiddenState(AutoModel.from_pretrained(str(model_path))).eval()
    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = tuple(torch.ones(2, 8, dtype=torch.long) if n != "token_type_ids" else torch.zeros(2, 8, dtype=torch.long)
                   for n in names)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".tmp{os.getpid()}")
    try:
        torch.onnx.export(model, sample, str(partial), input_names=names, output_names=["last_hidden_state"],
                          dynamic_axes={n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]},
                          opset_version=17, dynamo=False)
        difference = _difference(model_path, partial)
        if difference > TOLERANCE:
            raise RuntimeError(f"the export gives vectors {difference:.2g} away from torch's; not used")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return f"exported {model_path.name} to {target} (vectors within {difference:.1g} of torch's)"


def _difference(model_path: Path, onnx_file: Path) -> float:
    from knowledge_base.embeddings import OnnxEmbedder, SentenceTransformerEmbedder

    ours = OnnxEmbedder(model_path, onnx_file).embed(PROBES)
    theirs = SentenceTransformerEmbedder(model_path).embed(PROBES)
    return float(np.abs(ours - theirs).max())

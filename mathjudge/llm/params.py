"""Sampling parameters shared by the pipelines that want reproducible answers."""

from collections.abc import Mapping
from typing import Any

# Greedy decoding: the same prompt gives the same answer where the provider allows it.
DETERMINISTIC: Mapping[str, Any] = {"temperature": 0}

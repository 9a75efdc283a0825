"""Whether a built dataset may be uploaded: its data card must state a license that allows
redistribution. StepMathBench, ProofBench and ArxivMathGradingBench state none upstream (their
cards say "unknown" and ask the reader to check with the authors), so publishing a copy is not
ours to decide; `--push-to-hub` refuses them unless the user says they have permission.
Hard2Verify is refused in any case (its authors ask that decrypted copies never be posted).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from mathjudge.base import sidefiles
from mathjudge.base.errors import MathJudgeError

PERMISSION_FLAG = "--i-have-permission-to-redistribute"
# Hugging Face license ids whose terms allow passing copies on (some only non-commercially).
_REDISTRIBUTABLE = re.compile(
    r"apache-2\.0|mit|bsd(-[234]-clause)?|isc|unlicense|cc0-1\.0|pddl|odc-by|odbl"
    r"|cc-by(-sa|-nd|-nc|-nc-sa|-nc-nd)?-[1-4]\.0|cc-by(-sa)?-2\.5"
    r"|(a|l)?gpl-[23]\.0|lgpl-2\.1|mpl-2\.0|cdla-(permissive|sharing)-[12]\.0"
)


def redistributable(license_id: str | None) -> bool:
    return bool(license_id) and _REDISTRIBUTABLE.fullmatch(str(license_id).lower()) is not None


def refusal(name: str, license_id: str | None) -> str | None:
    """Why `name` may not be pushed without permission (None if its license allows it)."""
    if redistributable(license_id):
        return None
    return (
        f"{name}: its data card states the license {license_id or 'none'!r}, not one that "
        "allows redistribution (the upstream authors have not said their data may be "
        "republished), so --push-to-hub refuses it. If the authors have given you permission, "
        f"pass {PERMISSION_FLAG}"
    )


def card_license(folder: Path) -> str | None:
    """The `license` of a built folder's data card (YAML front matter of README.md)."""
    card = folder / "README.md"
    text = sidefiles.read_text(card, 4 << 20, "data card")
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    try:
        front = yaml.safe_load(match.group(1)) if match else None
    except yaml.YAMLError as exc:
        raise MathJudgeError(f"{card}: front matter is not YAML ({exc})") from None
    value = front.get("license") if isinstance(front, dict) else None
    return str(value) if value is not None else None

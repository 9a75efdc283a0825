"""The one way mathjudge talks to models: an async litellm client with bounded concurrency,
retries, a disk cache and usage accounting (`client`), plus strict answer parsing (`answers`).

Import what you use from its module (`mathjudge.llm.client`, `.answers`, ...): this package
imports none of them, so a rule judge that only parses answers never pays for litellm's
import (seconds).
"""

import os

# Set before any submodule imports litellm, which otherwise downloads its model cost map at
# import time (and retries in a background thread); the copy bundled with litellm is used.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

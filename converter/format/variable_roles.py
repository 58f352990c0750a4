"""What each resource variable of a training file is for, as the converter knows it and the runtime's memory
report needs it: the file's `rillet_variable_roles` metadata, a JSON object from role to variable names.

Roles: "trained" (the weights the step updates), "optimizer_slots" (state the optimizer keeps: Adam's m and
v and its beta powers, momentum's velocity), "statistics" (model state the step assigns without a gradient:
batch norm's moving mean and variance) and "settings" (variables the step only reads, such as a learning
rate). LiteRT ignores the entry; files without it (TensorFlow's) simply have no roles.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

METADATA_NAME = "rillet_variable_roles"
ROLES = ("trained", "optimizer_slots", "statistics", "settings")


def encode_roles(roles: Mapping[str, Sequence[str]]) -> bytes:
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValueError(f"variable roles {sorted(unknown)} are not among {ROLES}")
    return json.dumps({role: list(roles.get(role, ())) for role in ROLES}).encode()


def decode_roles(model: Any) -> dict[str, str]:
    """Variable name -> role, from a ModelFile or ModelView; {} when the file has no roles entry or an
    unreadable one (the roles only label a report, so a damaged entry is not worth refusing a model for)."""
    for entry in model.metadata or []:
        if entry.name != METADATA_NAME:
            continue
        data = model.buffer_data(entry.buffer) if hasattr(model, "buffer_data") else model.buffers[entry.buffer].data
        try:
            roles = json.loads(bytes(data if data is not None else b"").decode())
        except (UnicodeDecodeError, ValueError):
            return {}
        if not isinstance(roles, dict):
            return {}
        return {str(name): role for role, names in roles.items() if role in ROLES and isinstance(names, list)
                for name in names}
    return {}

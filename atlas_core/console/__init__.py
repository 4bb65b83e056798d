"""What Atlas prints at a terminal beyond a command's answer: progress that suits where stderr
goes, and suggested commands that suit how Atlas was installed."""

from __future__ import annotations

from atlas_core.console.installation import INSTALL_COMMAND, Installation, installation
from atlas_core.console.progress import PlainProgress, is_terminal, progress_bar

__all__ = [
    "INSTALL_COMMAND",
    "Installation",
    "PlainProgress",
    "installation",
    "is_terminal",
    "progress_bar",
]

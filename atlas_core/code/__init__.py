"""Chunking source code for search: `chunk_code` cuts a file at its definitions (functions,
methods, classes, types, top-level keys) with tree-sitter, within an embedding budget, and falls
back to `line_windows` without a grammar; `fixed_windows` is the plain character-window chunker
that definition-aware chunking is measured against."""

from __future__ import annotations

from atlas_core.code.chunker import chunk_code
from atlas_core.code.pieces import CodeChunking, CodePiece
from atlas_core.code.windows import fixed_windows, line_windows

__all__ = ["CodeChunking", "CodePiece", "chunk_code", "fixed_windows", "line_windows"]

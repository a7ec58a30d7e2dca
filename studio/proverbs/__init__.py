"""Proverbs (ePiC, Ghosh & Srivastava, ACL 2022): recommend proverbs for a narrative, align a proverb's
phrases with spans of the narrative, and find narratives with similar motifs."""
from .service import Ranked, Similar, align, get_scorer, ranking, resolve_proverb, similar

__all__ = ["Ranked", "Similar", "align", "get_scorer", "ranking", "resolve_proverb", "similar"]

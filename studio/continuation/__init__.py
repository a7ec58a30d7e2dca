"""Figurative continuation (Chakrabarty, Choi & Shwartz, TACL 2022): continue a narrative that ends in an idiom
or a simile, with plain or knowledge-enhanced decoding, and judge which of two continuations is plausible."""

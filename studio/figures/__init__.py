"""Figures of speech that several capabilities share: the simile components extractor and detector, the simile
knowledge base, adjective antonyms, ironic similes and the language model's side of a vehicle, and the idiom
lexicon. It imports no capability (similes, hauser, continuation, …), only models and the top-level helpers."""

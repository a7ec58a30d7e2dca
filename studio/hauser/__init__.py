"""HAUSER (He et al., ACL 2023): relevance, logical and sentiment consistency, quality, creativity and
informativeness of simile candidates, and the reranker built on them. No gradio here."""

"""ImaginE (Zhu et al.): imagine two texts with a text-to-image model and compare the imaginations with CLIP."""
from .compare import ImagineResult, TopKResult, imagine_pair, imagine_top_k
from .scores import IMAGE_RANGE, TEXT_IMAGE_RANGE, pair_scores, rescale

__all__ = ["IMAGE_RANGE", "TEXT_IMAGE_RANGE", "ImagineResult", "TopKResult", "imagine_pair", "imagine_top_k",
           "pair_scores", "rescale"]

"""The lab: experiments, training and asset builds that the served studio never imports."""

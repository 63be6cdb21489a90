"""``verl-ext smoke``: a verl config run for one step on CPU with a tiny model, to find a broken reward
function, data column or override in minutes, before any model loads on a cluster."""

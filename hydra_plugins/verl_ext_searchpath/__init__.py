"""verl-ext's Hydra search-path plugin (``verl_ext_searchpath.VerlExtSearchPathPlugin``), found by Hydra in the
``hydra_plugins`` namespace package. Nothing is re-exported here: Hydra registers every plugin class it finds in
each module it scans, so a re-export would register it twice."""

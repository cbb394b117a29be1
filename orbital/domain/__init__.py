"""The pure core: deciders and folds. No I/O, no clock, no framework imports."""

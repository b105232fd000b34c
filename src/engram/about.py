"""Who this package is on the package index.

The import package and the command are `engram`; the distribution is `engram-local`, because
the name `engram` on PyPI belongs to an unrelated project (installing it would install someone
else's code). Every message that tells a user what to install, and every version lookup, uses
this one name.
"""

DISTRIBUTION = "engram-local"

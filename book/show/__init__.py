"""What shows the tokenizers: chips for a segmentation, the merge stepper, and (later) viewers.

This layer sits on top of ``book.tokenizers`` and only imports downwards.
"""

from book.show.chips import chips_html
from book.show.stepper import MergeStepper, merge_stepper

__all__ = ["MergeStepper", "chips_html", "merge_stepper"]

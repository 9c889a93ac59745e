"""Answer cells of the fixture submissions of assignment hw05, keyed by student.

Each entry maps a question label to the source of its answer cell; ``{gap:...}`` placeholders are filled by
the test with the gap computed for a student (``gap_for``), as a student would type a number.
"""

CORRECT_HISTOGRAM = '''\
def my_dp_histogram(data, categories, epsilon, relation, rng):
    data, categories = np.asarray(data), np.asarray(categories)
    if not np.isin(data, categories).all():
        raise ValueError("a record is not one of the categories")
    order = np.argsort(categories)
    counts = np.bincount(order[np.searchsorted(categories[order], data)], minlength=len(categories)).astype(float)
    sensitivity = 1.0 if relation == "add_remove" else 2.0
    return dpcourse.laplace_mechanism(counts, sensitivity, epsilon, rng=rng)
'''

# the usual slip: sensitivity 1 under replace-one (half the noise, a 2 epsilon guarantee)
FACTOR_TWO_HISTOGRAM = CORRECT_HISTOGRAM.replace('1.0 if relation == "add_remove" else 2.0', "1.0")

# right scale, but numpy's floating-point Laplace sampler instead of the secure release
NUMPY_LAPLACE_HISTOGRAM = CORRECT_HISTOGRAM.replace(
    "return dpcourse.laplace_mechanism(counts, sensitivity, epsilon, rng=rng)",
    "return counts + np.random.laplace(0.0, sensitivity / epsilon, size=counts.shape)")

CRASHING_HISTOGRAM = '''\
def my_dp_histogram(data, categories, epsilon, relation, rng):
    return dpcourse.laplace_mechanism(counts, 2.0, epsilon, rng=rng)


print("x" * 3_000_000)   # megabytes of output, then a crash before the answer is usable
my_dp_histogram = undefined_helper(my_dp_histogram)
'''

LOOPING_HISTOGRAM = '''\
def my_dp_histogram(data, categories, epsilon, relation, rng):
    import time
    while True:   # forgot to advance the loop (it waits rather than spins: the grader's time limit ends it
        time.sleep(0.01)   # the same way, without taking a core from the rest of the test run)
'''

GAP = "my_gap = {gap!r}\n"

# No one hands in CORRECT_HISTOGRAM with the right gap: mallory's function is graded on the path of a correct
# function (full points), bob..erin's gap on the path of a correct number (full points); one more kernel for a
# submission whose two answers each follow a path graded here already would add about 3 s of CPU and nothing else.
SUBMISSIONS = {
    "bob": {"ex-hist-implement": FACTOR_TWO_HISTOGRAM, "ex-hist-argmax": GAP},
    "carol": {"ex-hist-implement": NUMPY_LAPLACE_HISTOGRAM, "ex-hist-argmax": GAP},
    "dave": {"ex-hist-implement": CRASHING_HISTOGRAM, "ex-hist-argmax": GAP},
    "erin": {"ex-hist-implement": LOOPING_HISTOGRAM, "ex-hist-argmax": GAP},
    # mallory copies alice's notebook (alice's numbers are her variant; alice's own copy is not graded here):
    # a correct function, and the gap computed for alice's numbers
    "mallory": {"ex-hist-implement": CORRECT_HISTOGRAM, "ex-hist-argmax": GAP, "copy_numbers_of": "alice"},
}

"""The source of a reference solution of every coding question, keyed by the question's label.

Each is honest work a student could hand in: it calls only what its question allows, draws every random
number from the ``rng`` it is given, with the library's exact samplers.
"""

REFERENCE_CODE = {
    "ex-hist-implement": '''\
def my_dp_histogram(data, categories, epsilon, relation, rng):
    data, categories = np.asarray(data), np.asarray(categories)
    if not np.isin(data, categories).all():
        raise ValueError("a record is not one of the categories")
    order = np.argsort(categories)
    counts = np.bincount(order[np.searchsorted(categories[order], data)], minlength=len(categories)).astype(float)
    sensitivity = 1.0 if relation == "add_remove" else 2.0
    return dpcourse.laplace_mechanism(counts, sensitivity, epsilon, rng=rng)
''',
}

"""The route that works for a kernel model the product-kernel engine refuses, by estimator.

Every refusal of a kernel (``sigmoid``, ``cosine``, a callable or precomputed kernel, a GP kernel
without a product form such as ``ExpSineSquared``) ends with one of these sentences, and the tests
(tests/test_kernel_coverage.py) run the route each names on a fitted model and compare it with
enumeration of all coalitions of the model's own prediction, so the sentences stay true.
"""

from __future__ import annotations

#: what an enumeration/sampling route costs, said once for every route
_LIMITS = (
    "by evaluating the model on coalitions of the background rows B: exact enumeration up to 12 features "
    "(max_exact_features), sampled with standard errors beyond"
)

#: which prediction function each estimator's explained output is
_OUTPUTS = {
    "SVC": "model.decision_function",
    "NuSVC": "model.decision_function",
    "OneClassSVM": "model.decision_function",
    "GaussianProcessClassifier": "lambda X: model.predict_proba(X)[:, 1]",
}


def model_function(owner: str) -> str:
    """The expression for the output kexplain explains for an estimator named ``owner``."""
    return _OUTPUTS.get(owner, "model")


def route_for(owner: str, precomputed: bool = False) -> str:
    """The sentence naming the route that works for a refused ``owner`` estimator.

    ``precomputed``: the estimator takes Gram matrices, so the route wraps the user's kernel
    function ``k`` and the training rows ``X_train`` around the model.
    """
    fn = model_function(owner)
    if precomputed:  # owner is part of the signature for the messages' sake; the text names the model
        call = "model.predict(X)" if fn == "model" else f"{fn}(X)"
        call = call.replace("(X)", "(k(X, X_train))", 1)
        return (
            "The model takes Gram matrices, not features, so there are no features to attribute to: wrap "
            f"your kernel k and training rows X_train around it, kx.RKHSExplainer(lambda X: {call}, "
            f"background=B, game='interventional'), which explains it {_LIMITS}."
        )
    return f"kx.RKHSExplainer({fn}, background=B, game='interventional') explains it {_LIMITS}."

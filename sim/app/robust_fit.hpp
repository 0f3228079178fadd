// A robust least-squares fit within bounds (docs/calibration.md#calibration): the soft_l1 loss
// of scipy.optimize.least_squares, minimised by NLopt (Johnson, "The NLopt nonlinear-optimization
// package", https://github.com/stevengj/nlopt).
#pragma once

#include <functional>
#include <vector>

namespace csx::app {

// soft_l1's rho(z) = 2 (sqrt(1 + z) - 1) (scipy.optimize.least_squares, loss="soft_l1"): z for
// small z, 2 sqrt(z) for large, so a residual far beyond the scale counts linearly.
[[nodiscard]] double soft_l1(double z);

// The robust cost of residuals r at scale `f_scale`: 0.5 sum f_scale^2 rho((r / f_scale)^2),
// scipy's `cost` (0.5 sum r^2 when every |r| << f_scale).
[[nodiscard]] double robust_cost(const std::vector<double>& residuals, double f_scale);

// The residual vector at a parameter vector (always of the same length).
using Residuals = std::function<std::vector<double>(const std::vector<double>&)>;

struct FitSettings {
  double f_scale = 0.1;  // soft_l1's scale, in the residuals' units
  // Stops when a step moves every parameter by less than xtol x (its high - low): on the
  // parameters only, as the cost is flat along some directions, where a stop on a relative change
  // of the cost (ftol 1e-6) ended early at a point that depended on the start.
  double xtol = 1e-4;
  // BOBYQA's first trust-region radius, a fraction of each range.
  double initial_step = 0.02;
  int max_evaluations = 1000;
};

struct FitResult {
  std::vector<double> x;
  double cost = 0;        // robust_cost at x
  int evaluations = 0;    // residual vectors asked of `residuals`
  bool converged = true;  // false: stopped at max_evaluations, before its tolerance
};

// Minimises robust_cost(residuals(x)) over low <= x <= high from x0 (clipped into the bounds) by
// NLopt's BOBYQA (Powell 2009, "The BOBYQA algorithm for bound constrained optimization without
// derivatives", Cambridge DAMTP 2009/NA06: quadratic models in a trust region, no gradients) on
// the parameters scaled to [0, 1]. Returns the best point seen. Throws std::invalid_argument for
// mismatched sizes or empty bounds (low >= high); what `residuals` throws passes through;
// std::runtime_error when NLopt fails (not for a stop on a tolerance, the round-off limit or the
// evaluation budget).
[[nodiscard]] FitResult fit_robust(const Residuals& residuals, std::vector<double> x0,
                                   const std::vector<double>& low, const std::vector<double>& high,
                                   const FitSettings& settings = {});

}  // namespace csx::app

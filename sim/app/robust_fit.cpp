// The robust fit: NLopt's BOBYQA on the soft_l1 cost of the residuals.
#include "app/robust_fit.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <nlopt.hpp>
#include <stdexcept>

namespace csx::app {
namespace {

// The problem NLopt sees: parameters u in [0, 1]^n, x = low + u (high - low).
struct Scaled {
  const Residuals& residuals;
  const std::vector<double>& low;
  const std::vector<double>& high;
  const FitSettings& settings;
  FitResult best;
  std::exception_ptr error;  // thrown by `residuals`; NLopt's wrapper would drop its message

  double evaluate(const std::vector<double>& u) {
    std::vector<double> x(u.size());
    for (std::size_t i = 0; i < u.size(); ++i)
      x[i] = std::clamp(low[i] + u[i] * (high[i] - low[i]), low[i], high[i]);
    const double cost = robust_cost(residuals(x), settings.f_scale);
    ++best.evaluations;
    if (best.x.empty() || cost < best.cost) {
      best.x = x;
      best.cost = cost;
    }
    return cost;
  }
};

double objective(const std::vector<double>& u, std::vector<double>& /*grad: none*/, void* data) {
  auto* s = static_cast<Scaled*>(data);
  try {
    return s->evaluate(u);
  } catch (...) {
    s->error = std::current_exception();
    throw nlopt::forced_stop();
  }
}

}  // namespace

double soft_l1(double z) {
  return 2 * (std::sqrt(1 + z) - 1);
}

double robust_cost(const std::vector<double>& residuals, double f_scale) {
  double sum = 0;
  for (const double r : residuals) sum += soft_l1((r / f_scale) * (r / f_scale));
  return 0.5 * f_scale * f_scale * sum;
}

FitResult fit_robust(const Residuals& residuals, std::vector<double> x0,
                     const std::vector<double>& low, const std::vector<double>& high,
                     const FitSettings& settings) {
  const std::size_t n = x0.size();
  if (n == 0 || low.size() != n || high.size() != n)
    throw std::invalid_argument("fit_robust: x0, low and high need one value per parameter");
  for (std::size_t i = 0; i < n; ++i)
    if (!(low[i] < high[i])) throw std::invalid_argument("fit_robust: a bound with low >= high");
  Scaled s{residuals, low, high, settings, {}, nullptr};
  std::vector<double> u(n);
  for (std::size_t i = 0; i < n; ++i)
    u[i] = (std::clamp(x0[i], low[i], high[i]) - low[i]) / (high[i] - low[i]);
  nlopt::opt opt(nlopt::LN_BOBYQA, static_cast<unsigned>(n));
  opt.set_lower_bounds(std::vector<double>(n, 0.0));
  opt.set_upper_bounds(std::vector<double>(n, 1.0));
  opt.set_xtol_abs(settings.xtol);
  opt.set_initial_step(settings.initial_step);
  opt.set_maxeval(settings.max_evaluations);
  opt.set_min_objective(objective, &s);
  double cost = 0;
  try {
    s.best.converged = opt.optimize(u, cost) != nlopt::MAXEVAL_REACHED;
  } catch (const nlopt::roundoff_limited&) {
    // As close as round-off allows: the best point seen stands.
  } catch (const std::runtime_error&) {
    if (!s.error) throw;
  }
  if (s.error) std::rethrow_exception(s.error);
  return s.best;
}

}  // namespace csx::app

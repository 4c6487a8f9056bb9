//! Prompt caching: the shape of each request (tools → system blocks →
//! messages, with breakpoints), the history the message builder keeps, the
//! providers' caching rules (predictors), predictions over a session's
//! turns with the reason for every miss, the cache-breaker lint, token-count
//! calibration, and the comparison of real test requests with predictions.

pub mod calibration;
pub mod history;
pub mod lint;
pub mod prediction;
pub mod predictors;
pub mod request;
pub mod shape;
pub mod test_run;

#[cfg(test)]
mod predict_tests;
#[cfg(test)]
mod shape_tests;

//! The HTTP layer shared by every endpoint group: request bodies (JSON and Rails-style forms),
//! typed field readers, pagination, responses, the one error type, and the middleware every route
//! passes (authentication, rate limits, idempotency).

pub mod authentication;
pub mod authorizer;
pub mod body;
pub mod error;
pub mod extract;
pub mod fields;
pub mod gateway_context;
pub mod idempotency;
pub mod pagination;
pub mod query;
pub mod rate_limit;
pub mod response;
pub mod routing;
pub mod tenant;
pub mod urlencoded;

pub use body::RequestBody;
pub use error::{ApiError, ApiResult};
pub use extract::Path;
pub use fields::{Fields, Sent};
pub use pagination::Pagination;
pub use query::Params;
pub use tenant::{PointOfSale, Tenant};

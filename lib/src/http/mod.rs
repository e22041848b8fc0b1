//! The HTTP layer shared by every endpoint group: request bodies (JSON and Rails-style forms),
//! typed field readers, pagination, responses and the one error type.

pub mod body;
pub mod error;
pub mod extract;
pub mod fields;
pub mod pagination;
pub mod query;
pub mod response;
pub mod routing;
pub mod urlencoded;

pub use body::RequestBody;
pub use error::{ApiError, ApiResult};
pub use extract::Path;
pub use fields::{Fields, Sent};
pub use pagination::Pagination;
pub use query::Params;

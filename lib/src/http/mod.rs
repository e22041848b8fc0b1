//! The HTTP layer shared by every endpoint group: request bodies (JSON and Rails-style forms),
//! typed field readers, pagination, responses and the one error type.

pub mod body;
pub mod error;
pub mod fields;
pub mod pagination;
pub mod query;
pub mod resource;
pub mod response;
pub mod routing;

pub use body::RequestBody;
pub use error::{ApiError, ApiResult};
pub use fields::Fields;
pub use pagination::Pagination;
pub use query::Params;

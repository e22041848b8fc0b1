//! Values: ids, money, taxpayer ids, the calendar, a schedule's recurrence, text rules and the spec's closed sets of words.
//! The leaf of the crate: nothing here knows storage, HTTP or any resource.

pub mod calendar;
pub mod cpf_cnpj;
pub mod ids;
pub mod kinds;
pub mod money;
pub mod recurrence;
pub mod schedule_calendar;
pub mod terms;
pub mod text;

pub use calendar::{today, Timestamp};
pub use cpf_cnpj::{Cnpj, Cpf};
pub use ids::*;
pub use kinds::*;
pub use money::Money;

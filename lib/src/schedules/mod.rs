//! Recurring collection (DESIGN §12): a schedule (the spec's `billing_type: schedule` record) issues
//! one ordinary billing per cycle, a set number of days before its due date. So far its calendar
//! ([`calendar`]): when each cycle falls due and when it is issued.

pub mod calendar;

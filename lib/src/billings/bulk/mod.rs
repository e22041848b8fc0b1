//! Bulk billings (§2.1, §4.2): one billing per active customer carrying a tag, made in the
//! background.
//!
//! The create route checks the body and its references as for any billing, counts the eligible
//! contacts and answers `202 {status, enqueued, contacts_count}`; no billing exists yet. Without
//! excluded tags the count is the tag's reach counter, which every contact write keeps in its own
//! transaction (`contacts::counts::reached_by`: constant cost, whatever the tag's size); with
//! excluded tags it takes off that count the tag's reached holders among the excluded tags'
//! holders, read when the excluded tags reach fewer contacts than the tag (else it reads the tag's
//! holders): the cost of the smaller side. In one
//! transaction it writes the *expansion* (`A#<account>`, `EXPANSION#<id>`: the body, the tags it
//! holds and its cursor, the contact after which the next chunk starts), a reference on its tag
//! and excluded tags (so a tag in use by a bulk request still expanding cannot be deleted, §4.5),
//! and the task that sends the first chunk's message (`jobs::tasks`): nothing is accepted that
//! will not expand, and nothing is sent before it is saved.
//!
//! The worker expands one chunk of contacts per message, in ascending contact id:
//! - eligible: an active `customer` linked to the tag, none of whose tags is in `excluded_tag_ids`,
//!   judged when its chunk is planned (a contact tagged or deactivated meanwhile is judged then);
//! - each generated billing is a bulk billing (`billing_issue_type = bulk`, the request's `tag_id`
//!   and `excluded_tag_ids`) whose payer (`contact_id`) is that contact; it counts on its payer and
//!   tags like any billing, so they stay in use while the billings it made exist;
//! - **a message runs only the chunk the expansion's cursor names**: a copy of a message already
//!   run, or one written by hand to start elsewhere, finds another cursor and does nothing;
//! - **each chunk is planned once**: its contacts (read when the chunk first runs), and the ids of
//!   its billings and their items (reserved together), in a plan item written before any billing.
//!   Whoever runs the chunk (a redelivery after a crash, a copy running at the same time) follows
//!   the plan: it reads which of the planned billings exist and writes only the others, each with
//!   a condition that it does not exist, so no contact of an expansion is billed twice;
//! - each billing is written whole in one transaction with its postings, its count on its payer
//!   and the task that asks for its billet's registration; billings go about nine to a
//!   transaction, which also carries their counts on the tags and the billings counter, and the
//!   transactions of a chunk touch different shards of those counts, so they never conflict with
//!   each other. A payer deleted since the chunk was planned is left out (its count refuses);
//! - **the cursor moves on in one transaction with the next chunk's task** (or, after the last
//!   chunk, the expansion is deleted with the hold on its tags), on the condition that it still
//!   names this chunk: of two copies of a message, exactly one sends the next.
//!
//! A file per part: the request's acceptance (`accept.rs`), the stored expansion and its messages
//! (`expansion.rs`), who a bulk billing reaches (`eligible.rs`), the worker (`worker.rs`), a
//! chunk's plan (`plan.rs`) and the writing of its billings (`write.rs`).

mod accept;
mod eligible;
mod expansion;
mod plan;
mod worker;
mod write;

pub use accept::{accept, MAX_BODY_BYTES, MSG_NO_CONTACTS, MSG_TOO_LARGE};
pub use plan::CHUNK;
pub use worker::{expand, handle_batch, Expanded};

//! The workers of a test's [`DevServer`], as the dev server runs them or one turn at a time: the
//! outbox handed on, each queue drained by its worker until it is empty (each message counted
//! once, however often SQS delivers it), messages delivered again, and the workers and the
//! webhook sender polling in the background.

use billing_api::accounts::AccountId;
use billing_api::webhooks::{Policy, Schedule, Sender};

use super::server::DevServer;
use crate::workers::Worker;

/// What makes two messages one piece of work for the drains: the body without `requested_at`, the
/// time its task was written (a registration is its billing and generation, a chunk its
/// expansion and place), so that two tasks asking for the same work count once. Anything else is
/// its own body.
fn identity(body: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(mut fields)) => {
            fields.remove("requested_at");
            serde_json::Value::Object(fields).to_string()
        }
        _ => body.to_owned(),
    }
}

impl DevServer {
    /// One receive and its batch from the queue at `queue_url`, or, on a server with lanes, one
    /// from each of its lanes in turn (`workers::fair_turn`).
    async fn turn(&self, sqs: &aws_sdk_sqs::Client, queue_url: &str, worker: &Worker) -> crate::workers::Round {
        let lanes = match self.fair {
            true => crate::workers::lanes_of(sqs, queue_url).await.expect("the queue's lanes"),
            false => vec![queue_url.to_owned()],
        };
        crate::workers::fair_turn(sqs, &lanes, worker).await.expect("a worker round")
    }

    /// One turn of the billet registrar over this server's lanes (a receive from each, as the dev
    /// server's worker takes them), what the server wrote handed on first.
    pub async fn registration_turn(&self) -> crate::workers::Round {
        self.hand_on().await;
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let worker = Worker::BilletRegistrar { store: self.store.clone() };
        self.turn(&sqs, &self.billet_queue_url, &worker).await
    }

    /// How many messages the drains' workers failed so far.
    pub fn failed_messages(&self) -> usize {
        self.failed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Hands on what this server wrote to the outbox (events to the webhook dispatcher, tasks to
    /// this server's queues), as the stream does on AWS; returns how many.
    pub async fn hand_on(&self) -> usize {
        self.stream.dispatch(&self.store, &self.queues).await
    }

    /// Hands on the outbox in the background from now on, as the dev server does.
    fn hand_on_in_background(&self) {
        if !self.handing_on.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let every = crate::dev_server::OUTBOX_STREAM_EVERY;
            tokio::spawn(self.stream.clone().run(self.store.clone(), self.queues.clone(), every));
        }
    }

    /// Runs the registration worker over this server's queue until it is empty (what the server
    /// wrote to the outbox handed on first); returns how many messages it handled.
    pub async fn register_billets(&self) -> usize {
        let worker = Worker::BilletRegistrar { store: self.store.clone() };
        self.drain(&self.billet_queue_url, &worker).await
    }

    /// Runs the bulk-expansion worker over this server's queue until it is empty (chunks enqueue
    /// their successors, which it runs too); returns how many messages it handled. The billets of
    /// the billings it made wait on the registration queue.
    pub async fn expand_bulk(&self) -> usize {
        let worker = Worker::BulkExpander { store: self.store.clone() };
        self.drain(&self.bulk_queue_url, &worker).await
    }

    /// Runs the settlements worker over this server's queue until it is empty (each chunk sends the
    /// next); returns how many messages it handled. The billing it makes waits on the registration
    /// queue.
    pub async fn settle(&self) -> usize {
        let worker = Worker::Settler { store: self.store.clone() };
        self.drain(&self.settlements_queue_url, &worker).await
    }

    /// Runs the cascades worker over this server's queue until it is empty: what deleted tags and
    /// groups left in their contacts is cleared. Returns how many messages it handled.
    pub async fn cascade(&self) -> usize {
        let worker = Worker::Cascader { store: self.store.clone() };
        self.drain(&self.cascades_queue_url, &worker).await
    }

    /// Runs the Pix charges worker over this server's queue until it is empty: the charges of
    /// billings that stopped being payable are removed at their PSP. Returns how many messages it
    /// handled.
    pub async fn remove_pix_charges(&self) -> usize {
        self.drain(&self.pix_charges_queue_url, &Worker::PixCharges { store: self.store.clone() }).await
    }

    /// Runs the exports worker over this server's queue until it is empty (each part sends the
    /// next) with the bucket `files`: every export queued is written. Returns how many messages it
    /// handled.
    pub async fn export(&self, files: &billing_api::files::Files) -> usize {
        let worker = Worker::Exporter { store: self.store.clone(), files: files.clone() };
        self.drain(&self.exports_queue_url, &worker).await
    }

    /// Runs the card releases worker over this server's queue until it is empty: the open card
    /// intents of billings settled otherwise are cancelled at the gateway. Returns how many
    /// messages it handled.
    pub async fn release_cards(&self) -> usize {
        let worker = Worker::CardReleases { store: self.store.clone() };
        self.drain(&self.card_releases_queue_url, &worker).await
    }

    /// Starts `day`'s issuing run of the schedules on this server's schedule cycles queue
    /// (`schedules::run::start`) and runs the issuer over it until it is empty, as the schedule and
    /// the worker do on AWS; returns how many schedules the run found due.
    pub async fn issue_schedules(&self, day: chrono::NaiveDate) -> usize {
        let due = billing_api::schedules::run::start(&self.store, &self.queues, day).await.expect("the run's start");
        self.issue_queued_schedules().await;
        due
    }

    /// Runs the schedules' issuer over this server's schedule cycles queue until it is empty;
    /// returns how many messages it handled.
    pub async fn issue_queued_schedules(&self) -> usize {
        self.drain(&self.schedule_cycles_queue_url, &Worker::ScheduleIssuer { store: self.store.clone() }).await
    }

    /// Starts `day`'s reminders on this server's scans queue (`reminders::run::start`) and runs
    /// the reminders' worker over it until it is empty, then over the reminders queue, as the
    /// schedule and the worker do on AWS (where the scans, quick, run beside the sends); returns
    /// how many different messages it handled (scans and reminders).
    pub async fn send_reminders(
        &self,
        day: chrono::NaiveDate,
        providers: &billing_api::reminders::providers::Providers,
    ) -> usize {
        billing_api::reminders::run::start(&self.store, &self.queues, day).await.expect("the run's scans");
        let worker = Worker::Reminders(Box::new(crate::workers::Reminders {
            store: self.store.clone(),
            queues: self.queues.clone(),
            providers: providers.clone(),
        }));
        let scans = self.drain(&self.reminder_scans_queue_url, &worker).await;
        scans + self.drain(&self.reminders_queue_url, &worker).await
    }

    /// Runs `worker` over the queue until it is empty; returns how many different messages it
    /// handled that no drain before handled (SQS may deliver one twice, even into a later drain:
    /// a copy is the same message).
    async fn drain(&self, queue_url: &str, worker: &Worker) -> usize {
        let mut handled = std::collections::HashSet::new();
        self.drain_into(queue_url, worker, &mut handled).await;
        handled.len()
    }

    /// The bulk-expansion and the billet-registration workers at once, as their functions run on
    /// AWS, until no expansion of `account` is left and both queues are empty; returns how many
    /// different registration messages were handled. A big expansion registers as it goes
    /// (registering after it would first fill the queue with every billing's message).
    pub async fn expand_and_register(&self, account: AccountId) -> usize {
        let expander = Worker::BulkExpander { store: self.store.clone() };
        let registrar = Worker::BilletRegistrar { store: self.store.clone() };
        let mut registered = std::collections::HashSet::new();
        let expanding = async {
            let mut handled = std::collections::HashSet::new();
            self.drain_into(&self.bulk_queue_url, &expander, &mut handled).await;
        };
        let registering = async {
            loop {
                let running = self.store.items_with_prefix(
                    billing_api::store::keys::account(account),
                    billing_api::store::keys::billing::BULK_EXPANSION_PREFIX.into(),
                    true,
                );
                let over = running.await.expect("the account's expansions").is_empty();
                self.drain_into(&self.billet_queue_url, &registrar, &mut registered).await;
                if over {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        };
        tokio::join!(expanding, registering);
        self.drain_into(&self.billet_queue_url, &registrar, &mut registered).await;
        registered.len()
    }

    /// Runs `worker` over the queue until it is empty, adding to `handled` the [`identity`] of the
    /// messages it handled that no drain of this server handled before.
    async fn drain_into(&self, queue_url: &str, worker: &Worker, handled: &mut std::collections::HashSet<String>) {
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        loop {
            // What the requests and the last round wrote (their messages, the next chunks).
            self.hand_on().await;
            let round = self.turn(&sqs, queue_url, worker).await;
            if round.bodies.is_empty() {
                return;
            }
            self.failed.fetch_add(round.failed, std::sync::atomic::Ordering::SeqCst);
            let mut seen = self.seen.lock().expect("the drains' bodies");
            let seen = seen.entry(queue_url.to_owned()).or_default();
            for body in round.bodies {
                let id = identity(&body);
                match seen.get(&id) {
                    None => {
                        seen.insert(id.clone(), body);
                        handled.insert(id);
                    }
                    // The same work asked for by two messages of different times: one piece of work
                    // for the tests (its worker does it once); said, so that a run's log shows it.
                    Some(first) if *first != body => eprintln!("drain: {body} asks again for what {first} asked"),
                    Some(_) => {}
                }
            }
        }
    }

    /// Sends every message the drains of this server handled from the queue at `queue_url` to it
    /// again, as SQS delivers a message a second time after it was handled (on a server without
    /// lanes); returns how many.
    pub async fn deliver_again(&self, queue_url: &str) -> usize {
        let bodies: Vec<String> = {
            let seen = self.seen.lock().expect("the drains' bodies");
            seen.get(queue_url).map(|bodies| bodies.values().cloned().collect()).unwrap_or_default()
        };
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        for body in &bodies {
            sqs.send_message().queue_url(queue_url).message_body(body).send().await.expect("send a message again");
        }
        bodies.len()
    }

    /// Both workers polling this server's queues in the background, as the dev server runs them,
    /// and the outbox handed on as it is written.
    pub fn start_worker(&self) {
        self.hand_on_in_background();
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let registrar = Worker::BilletRegistrar { store: self.store.clone() };
        tokio::spawn(self.run_worker(sqs.clone(), self.billet_queue_url.clone(), registrar));
        let expander = Worker::BulkExpander { store: self.store.clone() };
        tokio::spawn(self.run_worker(sqs, self.bulk_queue_url.clone(), expander));
    }

    /// A worker polling one of this server's queues for ever (its lanes in turn on a server with
    /// lanes), as the dev server runs it.
    fn run_worker(
        &self,
        sqs: aws_sdk_sqs::Client,
        queue_url: String,
        worker: Worker,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        match self.queues.bell(&queue_url) {
            Some(bell) => Box::pin(crate::workers::run_fair_worker(sqs, queue_url, worker, bell)),
            None => Box::pin(crate::workers::run_worker(sqs, queue_url, worker)),
        }
    }

    /// The webhook path as the dev server runs it: the outbox handed on as it is written and the
    /// sender polling this server's deliveries queue, delivering to `http://127.0.0.1` receivers
    /// (the local switch) with this retry schedule.
    pub fn start_webhooks(&self, schedule: Schedule) {
        let sender = self.webhook_sender(Policy::LOCAL, schedule);
        self.hand_on_in_background();
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let worker = Worker::WebhookSender(Box::new(sender));
        tokio::spawn(self.run_worker(sqs, self.webhook_queue_url.clone(), worker));
    }

    /// A sender of this server's deliveries.
    pub fn webhook_sender(&self, policy: Policy, schedule: Schedule) -> Sender {
        Sender {
            store: self.store.clone(),
            queues: self.queues.clone(),
            vault: self.vault.clone(),
            client: billing_api::webhooks::client::Client::new(policy).expect("the delivery client"),
            schedule,
        }
    }
}

//! The embedded broker's log, as the centre's log shows it: rumqttd (0.20)
//! logs a client that leaves cleanly (a DISCONNECT, as the centre's own
//! link sends at every stop and a lane at its own) as an ERROR, one of
//! two: "router-drop" with `error=Recv(Disconnected)` (its router drops
//! the client's link, which then finds its channel closed), or, when the
//! link saw the connection close first, "no-connection id N is already
//! gone" (the router told twice of one disconnection). Those lines, and
//! only they, are left out; every other line of rumqttd's stays.

use std::fmt::Debug;

use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer};

/// Leaves out rumqttd's ERRORs for a client's clean DISCONNECT.
pub(super) struct CleanDisconnects;

impl<S: tracing::Subscriber> Layer<S> for CleanDisconnects {
    fn event_enabled(&self, event: &tracing::Event<'_>, _: Context<'_, S>) -> bool {
        let meta = event.metadata();
        if *meta.level() != tracing::Level::ERROR || !meta.target().starts_with("rumqttd::") {
            return true;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let dropped = fields.message == "router-drop" && fields.error == "Recv(Disconnected)";
        let twice = fields.message.starts_with("no-connection id ")
            && fields.message.ends_with(" is already gone");
        !(dropped || twice)
    }
}

/// An event's message and `error` field, as Debug writes them.
#[derive(Default)]
struct Fields {
    message: String,
    error: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        match field.name() {
            "message" => self.message = format!("{value:?}"),
            "error" => self.error = format!("{value:?}"),
            _ => {}
        }
    }
}

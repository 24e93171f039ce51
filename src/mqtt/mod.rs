//! What the lanes and the centre share of MQTT (docs/mqtt.md): the
//! broker's address ([`url`]), the topics ([`topic`]), the links' client
//! ids ([`client_id`]), and the broker's certificate checked so that one
//! not valid yet names the clock ([`clock_tls`]).

pub mod client_id;
pub mod clock_tls;
pub mod topic;
pub mod url;

pub use url::{BrokerUrl, MQTT_PORT, MQTTS_PORT, read_ca_file};

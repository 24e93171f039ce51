//! What the lanes and the centre share of MQTT (docs/mqtt.md): the
//! broker's address ([`url`]) and the topics ([`topic`]).

pub mod topic;
pub mod url;

pub use url::{BrokerUrl, MQTT_PORT, MQTTS_PORT, read_ca_file};

//! DynamicResources' explanation: its name among the score parts. The plugin is modelled
//! only as far as its PreFilter (see the parent module), so it has nothing else to say.

use crate::scheduler::explain::Explain;

#[derive(Debug)]
pub struct DynamicResources;

impl Explain for DynamicResources {
    fn short_name(&self) -> Option<&'static str> {
        Some("dra")
    }
}

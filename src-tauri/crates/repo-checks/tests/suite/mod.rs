mod architecture_doc;
mod file_sizes;
mod item_sizes;
mod layers;
mod one_decision;
mod one_host_reader;
mod security_doc;

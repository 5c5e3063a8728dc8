mod architecture_doc;
mod file_sizes;
mod layers;
mod one_decision;
mod security_doc;

mod architecture_doc;
mod file_sizes;
mod layers;
mod security_doc;

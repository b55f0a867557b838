//! Imports and exports of tournaments: OpenGotha's XML file (read).

pub mod csv;
pub mod egf;
pub mod opengotha_xml;

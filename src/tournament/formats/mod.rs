//! Imports and exports of tournaments: OpenGotha's XML file (read).

pub mod opengotha_xml;

# frozen_string_literal: true

module Goswiss
  VERSION = '0.1.0'
end

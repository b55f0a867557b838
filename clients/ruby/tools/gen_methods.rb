#!/usr/bin/env ruby
# frozen_string_literal: true

# Generates lib/goswiss/methods.rb from the daemon's own description of its API.
#
#   ruby tools/gen_methods.rb --url http://127.0.0.1:9090/           # rewrite the file
#   ruby tools/gen_methods.rb --url http://127.0.0.1:9090/ --check   # exit 1 if it is stale
#   ruby tools/gen_methods.rb --document discover.json [--out FILE]  # from a saved document
#
# The document is `rpc.discover` (OpenRPC 1.x). Every method but the WebSocket-only
# subscription pair becomes one method of Goswiss::Methods, which the client includes:
# `tournament.player.add(tournament_id, player, options?)` is
# `tournament_player_add(tournament_id, player, options = nil)`, with its summary and YARD
# types read from the parameter and result schemas (the shared types by name, with their
# keys). METHODS maps each method name to its Ruby name, parameter names and required count.
# Standard library only.

require 'json'
require 'net/http'
require 'optparse'
require 'uri'

HERE = File.expand_path(__dir__)
DEFAULT_OUT = File.join(HERE, '..', 'lib', 'goswiss', 'methods.rb')

# Served over WebSocket as a subscription; Ruby's standard library has no WebSocket, so the
# client's #follow polls tournament.events instead.
SKIPPED = %w[tournament.subscribe tournament.unsubscribe].freeze

RESERVED = %w[
  alias and begin BEGIN break case class def defined? do else elsif end END ensure false for if in
  module next nil not or redo rescue retry return self super then true undef unless until when
  while yield __FILE__ __LINE__ __ENCODING__
].freeze

SCALARS = { 'string' => 'String', 'integer' => 'Integer', 'number' => 'Numeric',
            'boolean' => 'Boolean', 'null' => 'nil' }.freeze

# `tournament.player.add` -> `tournament_player_add`; `system.listMethods` -> `system_list_methods`.
def snake(name)
  s = name.gsub(/(?<=[a-z0-9])([A-Z])/, '_\1').downcase.gsub(/[^0-9a-z_]/, '_')
  s = "m_#{s}" if s.match?(/\A\d/) || RESERVED.include?(s)
  s
end

def ident(name)
  s = name.to_s.gsub(/\W/, '_')
  s = "_#{s}" if s.empty? || s.match?(/\A\d/)
  s = "#{s}_" if RESERVED.include?(s)
  s
end

# Writes Goswiss::Methods for one rpc.discover document.
class Gen
  def initialize(doc)
    @doc = doc
    @schemas = (doc['components'] || {})['schemas'] || {}
  end

  # The schema a `$ref` names (components, and definitions / $defs nested in them).
  def resolve(ref)
    parts = ref.sub(%r{\A#/}, '').split('/')
    node = @doc
    parts.each do |p|
      return nil unless node.is_a?(Hash)

      node = node[p.gsub('~1', '/').gsub('~0', '~')]
    end
    node.is_a?(Hash) ? node : nil
  end

  # The Ruby classes a value of `schema` arrives as (YARD's notation).
  def rb_type(schema, depth = 0)
    return 'Object' unless schema.is_a?(Hash) && !schema.empty? && depth < 8

    if schema['$ref']
      target = resolve(schema['$ref'])
      return target ? rb_type(target, depth + 1) : 'Object'
    end
    return scalar_of(schema['const']) if schema.key?('const')
    return union(schema['enum'].map { |v| scalar_of(v) }) if schema['enum'].is_a?(Array)

    %w[anyOf oneOf].each do |key|
      return union(schema[key].map { |s| rb_type(s, depth + 1) }) if schema[key].is_a?(Array)
    end
    return rb_type(schema['allOf'][0], depth + 1) if schema['allOf'].is_a?(Array) && schema['allOf'].size == 1

    t = schema['type']
    return union(t.map { |one| rb_type(schema.merge('type' => one), depth + 1) }) if t.is_a?(Array)
    return SCALARS[t] if SCALARS.key?(t)
    return "Array<#{rb_type(schema['items'], depth + 1)}>" if t == 'array' && schema['items'].is_a?(Hash)
    return 'Array' if t == 'array'
    return 'Hash' if t == 'object' || schema.key?('properties')

    'Object'
  end

  def scalar_of(value)
    case value
    when String then 'String'
    when Integer then 'Integer'
    when Float then 'Float'
    when true, false then 'Boolean'
    when nil then 'nil'
    else 'Object'
    end
  end

  def union(types)
    seen = types.flat_map { |t| t.split(', ') }.uniq
    return 'Object' if seen.include?('Object')

    seen.join(', ')
  end

  # A few words on what the value holds: the shared type's name, an object's keys (required
  # ones marked `!`), an enum's values.
  def describe(schema, depth = 0)
    return '' unless schema.is_a?(Hash) && depth < 4

    if schema['$ref']
      name = schema['$ref'].split('/').last
      inner = describe(resolve(schema['$ref']), depth + 1)
      return inner.empty? ? name : "#{name} #{inner}"
    end
    if schema['enum'].is_a?(Array)
      return "one of #{schema['enum'].map { |v| JSON.generate(v) }.join(', ')}"
    end
    return "= #{JSON.generate(schema['const'])}" if schema.key?('const')
    if schema['properties'].is_a?(Hash) && !schema['properties'].empty?
      required = schema['required'] || []
      keys = schema['properties'].keys.sort.map { |k| required.include?(k) ? "#{k}!" : k }
      return "{#{keys.join(', ')}}"
    end
    if schema['type'] == 'array' && schema['items'].is_a?(Hash)
      inner = describe(schema['items'], depth + 1)
      return inner.empty? ? '' : "of #{inner}"
    end
    %w[anyOf oneOf].each do |key|
      next unless schema[key].is_a?(Array)

      parts = schema[key].map { |s| describe(s, depth + 1) }.reject(&:empty?)
      return parts.empty? ? '' : parts.join(' | ')
    end
    ''
  end

  # `text` as comment lines of at most `width` characters; `hang` indents the lines after the
  # first (YARD reads an indented line as the tag's continuation).
  def wrap(text, width, pad, hang = '')
    lines = []
    text.split("\n").each do |para|
      line = +''
      para.split(/\s+/).each do |word|
        if !line.empty? && line.size + 1 + word.size > width
          lines << line
          line = +hang
        end
        line << ' ' unless line.strip.empty?
        line << word
      end
      lines << line
    end
    lines.map { |l| l.empty? ? "#{pad}#".rstrip : "#{pad}# #{l}" }
  end

  def methods
    (@doc['methods'] || []).reject { |m| SKIPPED.include?(m['name']) }.sort_by { |m| m['name'] }
  end

  def method_text(m)
    name = m['name']
    params = m['params'] || []
    args = []
    names = []
    optional = false
    docs = []
    params.each_with_index do |p, k|
      pname = ident(p['name'] || "p#{k}")
      optional ||= !p['required']
      args << (optional ? "#{pname} = nil" : pname)
      names << pname
      type = rb_type(p['schema'])
      type = union([type, 'nil']) if optional && type != 'Object'
      what = [describe(p['schema']), p['description'] || p['summary']].compact.reject(&:empty?).join(': ')
      docs << "@param #{pname} [#{type}]#{what.empty? ? '' : " #{what}"}"
    end
    result = m['result'] || {}
    rwhat = describe(result['schema'])
    docs << "@return [#{rb_type(result['schema'])}]#{rwhat.empty? ? '' : " #{rwhat}"}"
    summary = (m['summary'] || m['description'] || name).strip
    lines = wrap("`#{name}`: #{summary}", 92, '    ')
    lines << '    #'
    docs.each { |d| lines.concat(wrap(d, 92, '    ', '  ')) }
    lines << (args.empty? ? "    def #{snake(name)}" : "    def #{snake(name)}(#{args.join(', ')})")
    lines << "      _call(#{name.inspect}, [#{names.join(', ')}])"
    lines << '    end'
    [lines.join("\n"), [name, snake(name), names, params.count { |p| p['required'] }]]
  end

  def render
    texts = []
    table = []
    methods.each do |m|
      text, row = method_text(m)
      texts << text
      table << row
    end
    out = []
    out << '# frozen_string_literal: true'
    out << ''
    out << "# Generated by tools/gen_methods.rb from the daemon's `rpc.discover`. Do not edit: rerun"
    out << '#   ruby tools/gen_methods.rb --url http://127.0.0.1:9090/'
    out << '# (test/docs_test.rb checks that it is current with the daemon under test).'
    out << ''
    out << 'module Goswiss'
    out << "  # Every method of `rpc.discover` but the WebSocket-only subscription pair, one Ruby"
    out << '  # method each; the including class supplies `_call(name, params)`.'
    out << '  module Methods'
    out << '    # Method name => [Ruby method, parameter names, how many of them are required].'
    out << '    METHODS = {'
    table.each do |name, ruby, names, required|
      out << "      #{name.inspect} => [:#{ruby}, #{names.inspect}, #{required}],"
    end
    out << '    }.freeze'
    texts.each do |t|
      out << ''
      out << t
    end
    out << '  end'
    out << 'end'
    "#{out.join("\n")}\n"
  end
end

def discover(url)
  uri = URI.parse(url)
  body = JSON.generate({ 'jsonrpc' => '2.0', 'id' => 1, 'method' => 'rpc.discover', 'params' => [] })
  res = Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == 'https', open_timeout: 60, read_timeout: 60) do |h|
    h.request_post(uri.path.empty? ? '/' : uri.path, body, 'Content-Type' => 'application/json')
  end
  reply = JSON.parse(res.body)
  abort "rpc.discover failed: #{res.body[0, 300]}" unless reply.is_a?(Hash) && reply['result'].is_a?(Hash)
  reply['result']
end

if $PROGRAM_NAME == __FILE__
  opts = { out: DEFAULT_OUT, check: false }
  OptionParser.new do |o|
    o.banner = 'usage: gen_methods.rb (--url URL | --document FILE) [--out FILE] [--check]'
    o.on('--url URL', "the daemon's JSON-RPC URL (http://host:port/)") { |v| opts[:url] = v }
    o.on('--document FILE', 'a saved rpc.discover result (or whole reply)') { |v| opts[:document] = v }
    o.on('--out FILE') { |v| opts[:out] = v }
    o.on('--check', 'exit 1 if --out differs from what the document gives') { opts[:check] = true }
  end.parse!(ARGV)
  abort 'gen_methods.rb: give exactly one of --url and --document' unless opts[:url].nil? ^ opts[:document].nil?

  doc = if opts[:url]
          discover(opts[:url])
        else
          d = JSON.parse(File.read(opts[:document]))
          d['result'].is_a?(Hash) ? d['result'] : d
        end
  text = Gen.new(doc).render
  if opts[:check]
    old = File.exist?(opts[:out]) ? File.read(opts[:out]) : ''
    if old == text
      puts "#{opts[:out]} is current"
      exit 0
    end
    a = old.lines
    b = text.lines
    shown = 0
    [a.size, b.size].max.times do |k|
      next if a[k] == b[k]

      puts "line #{k + 1}:", "- #{a[k]&.chomp}", "+ #{b[k]&.chomp}"
      shown += 1
      break if shown >= 20
    end
    warn "#{opts[:out]} is stale: rerun ruby tools/gen_methods.rb --url URL"
    exit 1
  end
  File.write(opts[:out], text)
  puts "wrote #{opts[:out]}"
end

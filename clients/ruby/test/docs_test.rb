# frozen_string_literal: true

require_relative 'test_helper'
require 'json'
require 'open3'
require 'rbconfig'
require 'tmpdir'

# What the docs promise: lib/goswiss/methods.rb is current with the daemon's rpc.discover,
# the generator writes what a document declares and --check sees a stale file, every method
# of the document is a method of the client, and the README's Ruby example is
# examples/quickstart.rb and runs as printed.
class DocsTest < Minitest::Test
  include Helpers

  GEN = File.join(PKG, 'tools', 'gen_methods.rb')
  README = File.join(REPO, 'README.md')

  def ruby(*args, **opts)
    Open3.capture3(RbConfig.ruby, *args, **opts)
  end

  # The lib directory of the goswiss under test (the installed gem, or this checkout's).
  def lib_dir
    File.dirname(Goswiss::Client.instance_method(:call).source_location[0], 2)
  end

  def discover
    Goswiss::Client.open(url) { |c| c.call('rpc.discover') }
  end

  def test_generated_methods_are_current
    out, err, status = ruby(GEN, '--url', url, '--check', '--out', File.join(lib_dir, 'goswiss', 'methods.rb'))
    assert status.success?,
           "lib/goswiss/methods.rb differs from what rpc.discover gives now: run " \
           "`ruby clients/ruby/tools/gen_methods.rb --url URL`\n#{out}#{err}"
  end

  def test_every_method_of_the_document_is_a_client_method
    doc = discover
    names = doc['methods'].map { |m| m['name'] } - %w[tournament.subscribe tournament.unsubscribe]
    assert_operator names.size, :>=, 60
    assert_equal names.sort, Goswiss::Methods::METHODS.keys.sort
    doc['methods'].each do |m|
      next unless names.include?(m['name'])

      ruby_name, params, required = Goswiss::Methods::METHODS.fetch(m['name'])
      assert_respond_to Goswiss::Client.new(url), ruby_name
      got = Goswiss::Client.instance_method(ruby_name).parameters
      assert_equal params.size, got.size, m['name']
      assert_equal required, got.count { |kind, _| kind == :req }, m['name']
    end
  end

  def test_every_code_the_document_declares_has_its_class
    doc = discover
    codes = doc['methods'].flat_map { |m| m['errors'] || [] }.map do |e|
      e = e['$ref'].sub(%r{\A#/}, '').split('/').reduce(doc) { |node, key| node.fetch(key) } if e['$ref']
      e.fetch('code')
    end.uniq
    assert_operator codes.size, :>=, 60
    missing = (codes - Goswiss::ERRORS.keys).sort
    assert_empty missing, "codes rpc.discover declares without a class in lib/goswiss/errors.rb: #{missing}"
  end

  def test_the_generator_writes_what_the_document_declares_and_check_sees_a_stale_file
    doc = {
      'methods' => [
        { 'name' => 'demo.add', 'summary' => 'Adds a player.',
          'params' => [
            { 'name' => 'player', 'required' => true, 'schema' => { '$ref' => '#/components/schemas/P' } },
            { 'name' => 'class', 'required' => false, 'schema' => { 'type' => %w[integer null] } }
          ],
          'result' => { 'name' => 'r', 'schema' => { 'type' => 'array', 'items' => { 'type' => 'string' } } } },
        { 'name' => 'demo.listThings', 'params' => [], 'result' => { 'name' => 'r', 'schema' => { 'type' => 'object' } } },
        { 'name' => 'tournament.subscribe', 'params' => [], 'result' => { 'name' => 'r', 'schema' => true } }
      ],
      'components' => {
        'schemas' => {
          'P' => { 'type' => 'object', 'required' => ['name'],
                   'properties' => { 'name' => { 'type' => 'string' }, 'rank' => { 'enum' => %w[1d 2d] } } }
        }
      }
    }
    Dir.mktmpdir('goswiss-gen-') do |dir|
      path = File.join(dir, 'doc.json')
      target = File.join(dir, 'methods.rb')
      File.write(path, JSON.generate(doc))
      _, err, status = ruby(GEN, '--document', path, '--out', target)
      assert status.success?, err
      text = File.read(target)
      assert_includes text, "    def demo_add(player, class_ = nil)\n      _call(\"demo.add\", [player, class_])\n"
      assert_includes text, '    # `demo.add`: Adds a player.'
      assert_includes text, '    # @param player [Hash] P {name!, rank}'
      assert_includes text, '    # @param class_ [Integer, nil]'
      assert_includes text, '    # @return [Array<String>]'
      assert_includes text, "    def demo_list_things\n"
      assert_includes text, '"demo.add" => [:demo_add, ["player", "class_"], 1],'
      refute_includes text, 'subscribe'
      _, _, syntax = ruby('-c', target)
      assert syntax.success?
      _, _, status = ruby(GEN, '--document', path, '--out', target, '--check')
      assert status.success?
      File.write(target, text.sub('def demo_add(player, class_ = nil)', 'def demo_add(player)'))
      _, err, status = ruby(GEN, '--document', path, '--out', target, '--check')
      refute status.success?
      assert_match(/is stale/, err)
    end
  end

  # Open3.capture3 with a bound only a hang reaches: the child is killed past `limit` seconds.
  def run_bounded(env, *cmd, chdir:, limit: 300)
    Open3.popen3(env, *cmd, chdir: chdir) do |stdin, stdout, stderr, wait|
      stdin.close
      out = Thread.new { stdout.read }
      err = Thread.new { stderr.read }
      unless wait.join(limit)
        Process.kill('KILL', wait.pid)
        flunk "#{cmd.join(' ')} did not finish within #{limit} s"
      end
      [out.value, err.value, wait.value]
    end
  end

  def readme_block(lang)
    readme = File.read(README)
    section = readme.split("\n## Clients\n", 2)[1].split("\n## ", 2)[0]
    m = section.match(/```#{lang}\n(.*?)```/m)
    assert m, "the README's Clients section has a ```#{lang} block"
    m[1]
  end

  def test_the_readmes_ruby_example_is_examples_quickstart
    assert_equal File.read(File.join(PKG, 'examples', 'quickstart.rb')), readme_block('ruby')
  end

  def test_the_readmes_ruby_example_runs_as_printed
    Dir.mktmpdir('goswiss-example-') do |dir|
      script = File.join(dir, 'example.rb')
      File.write(script, readme_block('ruby'))
      out, err, status = run_bounded({ 'GOSWISS_URL' => url }, RbConfig.ruby, '-I', lib_dir, script, chdir: dir)
      assert status.success?, out + err
      lines = out.lines.map(&:chomp)
      assert lines.any? { |l| l.start_with?('refused: 1021 ') }, out
      assert_equal 4, lines.count { |l| l.match?(/\A\d \w+ \{/) }, out
      events = lines.select { |l| l.start_with?('event ') }.map { |l| l.split[1, 2] }
      assert_equal (2...(2 + events.size)).to_a, events.map { |rev, _| Integer(rev) }, out
      assert_equal ['player_registered'] * 4 + ['round_paired'] + ['result_set'] * 2, events.map { |_, kind| kind }, out
      assert_equal 'live events: 7', lines.last, out
    end
  end
end
